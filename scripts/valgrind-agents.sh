#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# The AR ibsim tests with every switch agent (sim/ar-agent) under valgrind:
# a memory error or a definitely/indirectly lost block makes an agent exit
# 99, which the tests' "every agent exits cleanly" check reports.  Not
# part of make check (it takes a few minutes); run from a built tree.
set -e
cd "$(dirname "$0")/.."
top=$(pwd)
logs=$(mktemp -d /tmp/vf-vgagent-XXXXXX)
wrapper="$logs/ar-agent"
cat > "$wrapper" <<EOW
#!/bin/sh
exec valgrind -q --suppressions=$top/tests/valgrind/umad2sim.supp \\
	--leak-check=full --show-leak-kinds=definite,indirect \\
	--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \\
	--log-file=$logs/vg-%p.log $top/sim/ar-agent "\$@"
EOW
chmod +x "$wrapper"
rc=0
VF_AR_AGENT="$wrapper" make check \
	TESTS="tests/integration/t-ar.py tests/integration/t-arfail.py" || rc=$?
cat "$logs"/vg-*.log 2>/dev/null
echo "valgrind logs in $logs"
exit $rc
