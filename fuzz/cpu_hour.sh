#!/usr/bin/env bash
# fuzz/cpu_hour.sh TARGET...: gives each libFuzzer target (built by `make fuzz` in build-fuzz/) an
# hour of CPU, one target at a time, at the lowest priority: runs in segments that resume from
# the saved corpus (build-fuzz/corpus/TARGET) until the target has had 3,600 CPU-seconds, then
# the next target. A summary line per segment goes to build-fuzz/cpu-hour/summary.log; each
# segment's libFuzzer output to build-fuzz/cpu-hour/TARGET.segN.log. Crashes go to
# build-fuzz/crashes/TARGET/. A target whose summary already shows 3,600 CPU-seconds is skipped;
# one with fewer resumes from them. See docs/fuzzing.md, "An hour of CPU per target".
set -u
cd "$(dirname "$0")/.."
# With autogroup scheduling, nice counts only within a session: the session must be niced too,
# or the fuzzer takes its session's fair share (half of a 2-core machine) from everything else.
echo 19 >/proc/self/autogroup 2>/dev/null || true
out=build-fuzz/cpu-hour
mkdir -p "$out"
for t in "$@"; do
  [[ -x build-fuzz/fuzz/fuzz_$t ]] || { echo "no build-fuzz/fuzz/fuzz_$t (make fuzz first)" >&2; exit 2; }
  cpu=0 seg=0 execs=0
  # A target cut short (the machine went away) resumes where its last finished segment left it,
  # if its corpus is still there. To start a target over, remove its lines from summary.log.
  prev=$(grep -E "^[0-9:]+ $t seg=[0-9]+ rc=" "$out/summary.log" 2>/dev/null | tail -1)
  if [[ -n $prev && -n $(ls -A "build-fuzz/corpus/$t" 2>/dev/null) ]]; then
    if [[ ! $prev =~ \ seg=([0-9]+)\ rc=[0-9]+\ cpu=([0-9]+)\ execs=([0-9]+) ]]; then
      echo "$out/summary.log: cannot read the last line of $t: $prev" >&2
      exit 2
    fi
    seg=${BASH_REMATCH[1]} cpu=${BASH_REMATCH[2]} execs=${BASH_REMATCH[3]}
    if ((cpu < 3600)); then
      echo "$(date +%T) $t resumes at seg=$seg cpu=$cpu" >>"$out/summary.log"
    else
      echo "$t has had $cpu CPU-seconds already; skipped" >&2
    fi
  fi
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/crashes/$t"
  while ((cpu < 3600)); do
    seg=$((seg + 1))
    left=$((3600 - cpu < 60 ? 60 : 3600 - cpu))
    start=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)  # this shell's children so far
    nice -n 19 "build-fuzz/fuzz/fuzz_$t" -max_total_time="$left" -timeout=120 -rss_limit_mb=2048 \
      -artifact_prefix="build-fuzz/crashes/$t/" -print_final_stats=1 \
      "build-fuzz/corpus/$t" "fuzz/corpus/$t" >"$out/$t.seg$seg.log" 2>&1
    rc=$?
    used=$(( ($(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat) - start) / $(getconf CLK_TCK) ))
    cpu=$((cpu + used))
    e=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/$t.seg$seg.log" | awk '{print $2}')
    execs=$((execs + ${e:-0}))
    last=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$out/$t.seg$seg.log" | tail -1)
    echo "$(date +%T) $t seg=$seg rc=$rc cpu=$cpu execs=$execs last: $last" >>"$out/summary.log"
    # An interrupt (libFuzzer exits 72 on SIGINT, after its final stats) ends the whole run:
    # stopping the fuzzer with SIGINT before the machine goes away keeps its CPU-seconds.
    # A crash stops only its target: the input is fixed first (the next run resumes from here).
    if ((rc == 72)); then
      echo "$t: interrupted; stopped (resumes from here)" >>"$out/summary.log"
      exit 72  # and the targets after it do not start
    elif ((rc != 0)); then
      echo "$t: libFuzzer exited $rc (see $out/$t.seg$seg.log); stopped" >>"$out/summary.log"
      break
    fi
  done
done
