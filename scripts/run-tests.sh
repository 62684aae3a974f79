#!/bin/sh
# What `npm test` runs (inside scripts/with-test-postgres.ts): every suite three files at a time,
# then the benchmarks' smoke run on its own. The smoke run keeps both cores busy for minutes; beside
# other files it starved them, and they it, past their time bounds.
# `--coverage` (npm run test:coverage) runs the suites under c8. It is not CI's default: V8's block
# coverage slows every process the tests start, and c8 then merges thousands of dumps, which together
# took CI past its 30 minutes.
# Both phases always run, so one failing still shows the other's failures.
set -u
coverage=
if [ "${1:-}" = "--coverage" ]; then coverage="c8 --reporter=text-summary --reporter=lcov"; fi
$coverage node --import tsx --test --test-reporter=spec --test-concurrency=3 \
  $(find test -name '*.test.ts' ! -name benchmarks.test.ts | sort)
suites=$?
echo "==> The benchmarks' smoke run, alone (test/benchmarks.test.ts)"
node --import tsx --test --test-reporter=spec test/benchmarks.test.ts
benchmarks=$?
[ "$suites" -eq 0 ] && [ "$benchmarks" -eq 0 ]
