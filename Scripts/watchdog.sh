#!/usr/bin/env bash
# Runs a command with a time limit (CI's test runs). Past the limit it prints what a stalled test run was doing,
# then stops the command and everything it started, and fails; otherwise it exits as the command did.
#
#   Scripts/watchdog.sh SECONDS COMMAND [ARGUMENT...]
#
# What it prints on a stall, last so that the end of a CI log shows it: the call stacks of the test processes'
# threads (frames of this package's code; all of them in .build/watchdog-stacks.txt), then the tests that
# started and did not finish.
set -uo pipefail
limit=$1
shift
mkdir -p .build
log=.build/watchdog-output.log
: > "$log"
set -m # the command gets a process group of its own, which is stopped as a whole
"$@" > >(tee -a "$log") 2>&1 &
pid=$!
set +m
deadline=$((SECONDS + limit))
while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
        echo "== watchdog: still running after ${limit}s: $*"
        descendants() { for child in $(pgrep -P "$1"); do echo "$child"; descendants "$child"; done; }
        processes=$(descendants "$pid")
        stacks=.build/watchdog-stacks.txt
        : > "$stacks"
        for process in $processes; do
            name=$(tr '\0' ' ' < "/proc/$process/cmdline" 2>/dev/null | cut -c1-200)
            case "$name" in *.xctest*) ;; *) continue ;; esac
            echo "== process $process: $name" >> "$stacks"
            if command -v gdb > /dev/null; then
                timeout 300 gdb -p "$process" -batch -ex "thread apply all bt 40" 2>&1 | swift demangle --simplified >> "$stacks"
            else
                echo "(gdb is not installed: no stacks)" >> "$stacks"
            fi
        done
        echo "== watchdog: threads in this package's code (all frames: $stacks)"
        awk '/^== process|^\(gdb/ { print; next }
             /^Thread / { thread = $0; shown = 0; next }
             /^#[0-9]/ && / at .*\/(Sources|Tests|Benchmarks|Examples)\// && !/\/\.build\// && shown < 6 {
                 if (shown == 0) print substr(thread, 1, 100)
                 line = $0; sub(/^#[0-9]+ +(0x[0-9a-f]+ in )?/, "   ", line); print substr(line, 1, 240); shown++ }' \
            "$stacks"
        echo "== watchdog: tests started and not finished"
        started=$(sed -n 's/^◇ Test \(.*\) started\.$/\1/p' "$log" | grep -v '^case passing' | sort -u)
        ended=$(sed -n 's/^[✔✘➜] Test \(.*\) \(passed\|failed\|skipped\).*$/\1/p' "$log" \
            | sed 's/ with [0-9]* test cases*$//' | sort -u)
        comm -23 <(echo "$started") <(echo "$ended")
        # Stop the test processes first (no new children), then everything below the command.
        for process in $(descendants "$pid"); do
            case "$(tr '\0' ' ' < "/proc/$process/cmdline" 2>/dev/null)" in *.xctest*) kill -STOP "$process" ;; esac
        done
        kill -KILL -- "-$pid" $(descendants "$pid") 2>/dev/null
        wait "$pid" 2>/dev/null
        echo "== watchdog: stopped after ${limit}s: $*"
        exit 124
    fi
    sleep 5
done
wait "$pid"
