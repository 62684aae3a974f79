#!/bin/sh
# What `npm test` runs (inside scripts/with-test-postgres.ts): every suite three files at a time,
# then the benchmarks' smoke run on its own. The smoke run keeps both cores busy for minutes; beside
# other files it starved them, and they it, past their time bounds.
# The longest files (1.5–7 minutes each on CI's two cores) start first, so that none of them starts
# late and runs on alone after the others are done; the rest follow in name order.
# `--coverage` (npm run test:coverage) runs the suites under c8. It is not CI's default: V8's block
# coverage slows every process the tests start, and c8 then merges thousands of dumps, which together
# took CI past its 30 minutes.
# Both phases always run, so one failing still shows the other's failures.
set -u
coverage=
if [ "${1:-}" = "--coverage" ]; then coverage="c8 --reporter=text-summary --reporter=lcov"; fi
longest="test/crash.test.ts test/cli.test.ts test/browser/dashboard.test.ts test/cli-users.test.ts
  test/examples.test.ts test/package-tarball.test.ts test/first-burst-processes.test.ts
  test/multi-process-faults.test.ts test/limits-processes.test.ts"
for file in $longest; do
  [ -f "$file" ] || { echo "run-tests.sh: $file is listed among the longest but does not exist" >&2; exit 1; }
done
rest=$(find test -name '*.test.ts' ! -name benchmarks.test.ts | sort | grep -vxF "$(printf '%s\n' $longest)")
$coverage node --import tsx --test --test-reporter=spec --test-concurrency=3 $longest $rest
suites=$?
echo "==> The benchmarks' smoke run, alone (test/benchmarks.test.ts)"
node --import tsx --test --test-reporter=spec test/benchmarks.test.ts
benchmarks=$?
[ "$suites" -eq 0 ] && [ "$benchmarks" -eq 0 ]
