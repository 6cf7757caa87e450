#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Regenerate the seed corpora fuzz/corpus/<target>/ from the conf/
# examples, tests/data, tests/golden and valid MADs (fuzz/gen-mads).
# Run from a configured tree: sh fuzz/gen-seeds.sh  (top_srcdir=, and
# GEN_MADS= for a VPATH build's fuzz/gen-mads).
set -eu
src=${top_srcdir:-.}
gen=${GEN_MADS:-./fuzz/gen-mads}
c=$src/fuzz/corpus
for t in arkey arproto datapath ema lftdump netfile options pconf sa xmlconf; do
	rm -rf "${c:?}/$t"
	mkdir -p "$c/$t"
done
for f in "$src"/conf/*.xml "$src"/tests/data/*.xml "$src"/tests/golden/tenants.xml; do
	cp "$f" "$c/xmlconf/"
done
for f in "$src"/tests/data/*.net "$src"/tests/data/*.ibnetdiscover \
	"$src"/tests/golden/dcs1.net "$src"/tests/golden/mesh-3x2.net \
	"$src"/tests/golden/torus-3x3.net "$src"/tests/golden/ft2-trunk2.net; do
	cp "$f" "$c/netfile/"
done
for f in "$src"/tests/data/*.dump* "$src"/tests/data/*.ibroute*; do
	cp "$f" "$c/lftdump/"
done
# event_plugin_options lines of conf/opensm-vfabric.conf, and the rest
sed -n 's/^#* *event_plugin_options *//p' "$src/conf/opensm-vfabric.conf" |
	awk -v d="$c/options" 'NF { print > (d "/conf-" NR) }'
printf 'log_level=debug check_routes=off spine_first=on config=/etc/opensm/vfabric.xml config_poll=5\n' >"$c/options/all-basic"
printf 'dg_storage=desc:stor*,0x0002c903000a0b0c dg_admin=0x2c9000000001 routing_order=storage:admin\n' >"$c/options/dg-order"
printf 'core_switches=0x2c90200000001,0x2c90200000002 route_last=0x2c90300000010 partition_routing=isolate path_selection=srcdstall\n' >"$c/options/fattree"
printf 'ar_enable=on ar_fine_grained=off ar_lost_route_only=on ar_algorithm=greedyrandom ar_frequency=3 ar_threshold=5 sa_log=on\n' >"$c/options/ar"
printf 'ar_key=0xA11CE5EC12E7C0DE ar_key_lease=0 ar_key=zz ar_key=12345678901234567 x_key= _key=1\n' >"$c/options/ar-key"
printf 'disconnect_unconfigured=on loop_fallback=off route_stability=on bogus=1 log_level=loud\n' >"$c/options/bad"
# partitions.conf: stock OpenSM and vFabric statements (docs/vfabrics.md)
cat >"$c/pconf/stock" <<'PC'
# stock OpenSM partitions.conf
Default=0x7fff, ipoib, mtu=5, rate=7, defmember=full : ALL, SELF=full ;
storage=0x0002, ipoib, sl=1 : 0x0002c90300000010=full, 0x0002c90300000020 ;
switches=0x0003 : ALL_SWITCHES=full, ALL_CAS=limited ;
mgid=ff12:401b::ffff:ffff, mtu=4, rate=3, sl=0 ;
PC
cat >"$c/pconf/vfabric" <<'PC'
DeviceGroup Compute : desc=cn*, type=CA ;
DeviceGroup Storage : desc="stor*", node=0x0002c90300000030, include=Compute ;
DeviceGroup Admin : select=self, 0x0002c90300000041 ;
Application Lustre : sid=0x10603DB, sidrange=0x1060000-0x106FFFF ;
Application IPv4 : mgidmasked=0xff00401b00000000:0*0xff00ffff0000ffff:0xffffffff00000000 ;
Application All : select=all ;
Default=0x7fff, ipoib : ALL=limited, SELF=full ;
Tenant=0x0010, app=All, security=1, qos=1, basesl=2, bandwidth=30%, pktlifetime=2, hoqlife=8ms : @Compute=full, @Storage=limited ;
Storage=0x0020, app=Lustre, security=1, mcsl=3, highpriority=1 : @Storage, @Admin=both ;
Spare=0x0030, standby=1 : @Admin ;
PC
"$gen" "$c"
