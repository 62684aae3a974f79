#!/bin/sh
# What `npm test` runs (inside scripts/with-test-postgres.ts): every suite three files at a time
# under c8, then the benchmarks' smoke run on its own. The smoke run keeps both cores busy for
# minutes; beside other files it starved them, and they it, past their time bounds.
# Both phases always run, so one failing still shows the other's failures.
set -u
c8 --reporter=text-summary --reporter=lcov \
  node --import tsx --test --test-reporter=spec --test-concurrency=3 \
  $(find test -name '*.test.ts' ! -name benchmarks.test.ts | sort)
suites=$?
echo "==> The benchmarks' smoke run, alone (test/benchmarks.test.ts)"
node --import tsx --test --test-reporter=spec test/benchmarks.test.ts
benchmarks=$?
[ "$suites" -eq 0 ] && [ "$benchmarks" -eq 0 ]
