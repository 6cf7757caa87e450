#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# After the plugin is removed (make uninstall, or the package's postrm):
# warn when an opensm.conf still loads it.  OpenSM then starts without
# the plugin: none of the vFabric partitions, and its own routing engine
# in place of shortestpath/fattree.  Installed for the package's prerm.  Usage: opensm-conf-check.sh [CONF...]
# (default /etc/opensm/opensm.conf).  Always exits 0.
[ $# -gt 0 ] || set -- /etc/opensm/opensm.conf
for conf in "$@"; do
	[ -r "$conf" ] || continue
	# OpenSM takes the last event_plugin_name line: does it name vfabric?
	awk '$1 == "event_plugin_name" { last = $0 }
	     END { n = split(last, w); for (i = 2; i <= n; i++)
		       if (w[i] == "vfabric") exit 0; exit 1 }' "$conf" ||
		continue
	echo "WARNING: $conf still loads the removed plugin" \
		"(event_plugin_name vfabric): OpenSM will start without it:" \
		"no vFabric partitions, and its own routing engines." \
		"Remove the plugin's lines from $conf." >&2
done
exit 0
