# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/lib.sh: helpers for the bench scripts; source it:
#   . "$top/bench/lib.sh"
#
# bench_machine: one line saying how busy the machine is, for a part's
# output and its results file: the CPUs online and /proc/loadavg (the 1-,
# 5- and 15-minute load averages and the runnable/total tasks).  On cores
# shared with other work a wall time means little without it; print it
# before and after a part (bench/run.sh does, around each part).
bench_machine() {
	local cpus load
	cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null || echo '?')
	if read -r -a load </proc/loadavg 2>/dev/null; then
		printf '%s CPUs online, load average %s %s %s, %s runnable/total tasks\n' \
			"$cpus" "${load[0]}" "${load[1]}" "${load[2]}" "${load[3]}"
	else
		printf '%s CPUs online, load average unknown (no /proc/loadavg)\n' "$cpus"
	fi
}
