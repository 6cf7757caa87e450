// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * LFT dumps: OpenSM's opensm-lfts.dump and dump_fts / ibroute output,
 * captured from ibsim 0.10 + OpenSM 3.3.23 (tests/data/), read against the
 * ibnetdiscover output of the same fabric, and written back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/lftdump.h"
#include "routing/netfile.h"
#include "tests/unit/taptest.h"


static struct vf_fabric *load_fabric(const char *name)
{
	struct vf_err err = { "" };
	struct vf_fabric *f = vf_netfile_load(fixture(name), 0, &err);

	if (!OK(f, name))
		printf("# %s\n", err.msg);
	return f;
}

static int load_dump(const char *name, const struct vf_fabric *f,
		     struct vf_lfts *t)
{
	struct vf_err err = { "" };
	int rc = vf_lftdump_load(fixture(name), f, t, &err);

	if (!OK(rc == 0, name))
		printf("# %s\n", err.msg);
	return rc;
}

/* Output port of switch (by node GUID) for lid. */
static unsigned entry(const struct vf_fabric *f, const struct vf_lfts *t,
		      uint64_t sw_guid, unsigned lid)
{
	uint32_t n = vf_fabric_find_guid(f, sw_guid);

	if (n == VF_NONE || f->nodes[n].sw == VF_NONE)
		return 1000;
	return vf_lft_row(t, f->nodes[n].sw)[lid];
}

static bool same_tables(const struct vf_lfts *a, const struct vf_lfts *b)
{
	return a->num_switches == b->num_switches &&
	       a->max_lid == b->max_lid &&
	       !memcmp(a->port, b->port,
		       (size_t)a->num_switches * (a->max_lid + 1));
}

static char *slurp(const char *path)
{
	FILE *in = fopen(path, "r");
	char *buf;
	long len;

	if (!in)
		return NULL;
	fseek(in, 0, SEEK_END);
	len = ftell(in);
	rewind(in);
	buf = calloc(1, len + 1);
	if (buf && fread(buf, 1, len, in) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(in);
	return buf;
}

/* Our writer must reproduce OpenSM's own file byte for byte. */
static void check_write_matches(const struct vf_fabric *f,
				const struct vf_lfts *t, const char *name)
{
	char *want = slurp(fixture(name)), *got = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&got, &len);

	EQ_U(vf_lftdump_write(out, f, t), 0, "write succeeds");
	fclose(out);
	if (!OK(want && got && !strcmp(want, got),
		"written dump is identical to OpenSM's"))
		printf("# --- got:\n%s# --- want:\n%s", got, want);
	free(want);
	free(got);
}

static void test_lmc0(void)
{
	struct vf_fabric *f = load_fabric("2sw2path4hca.ibnetdiscover");
	struct vf_lfts osm = { 0 }, fts = { 0 }, ibr = { 0 };

	if (!f)
		return;
	if (!load_dump("2sw2path4hca.opensm-lfts.dump", f, &osm)) {
		EQ_U(osm.num_switches, 2, "two switch rows");
		EQ_U(osm.max_lid, 6, "sized to the fabric's LIDs");
		EQ_U(entry(f, &osm, 0x200000, 1), 0, "Switch1 LID 1: port 0");
		EQ_U(entry(f, &osm, 0x200000, 2), 1, "Switch1 LID 2: port 1");
		EQ_U(entry(f, &osm, 0x200000, 4), 3, "Switch1 LID 4: port 3");
		EQ_U(entry(f, &osm, 0x200000, 6), 5, "Switch1 LID 6: port 5");
		EQ_U(entry(f, &osm, 0x200001, 5), 5, "Switch2 LID 5: port 5");
		EQ_U(entry(f, &osm, 0x200001, 3), 0, "Switch2 LID 3: port 0");
		EQ_U(entry(f, &osm, 0x200001, 0), VF_NO_PORT, "LID 0: drop");
		check_write_matches(f, &osm, "2sw2path4hca.opensm-lfts.dump");
	}
	if (!load_dump("2sw2path4hca.dump_fts", f, &fts))
		OK(same_tables(&osm, &fts), "dump_fts reads back OpenSM's LFTs");
	if (!load_dump("2sw2path4hca.ibroute-lid1", f, &ibr)) {
		EQ_U(entry(f, &ibr, 0x200000, 6), 5, "ibroute: Switch1 LID 6");
		uint32_t sw1 = f->nodes[vf_fabric_find_guid(f, 0x200000)].sw;

		OK(!memcmp(vf_lft_row(&ibr, sw1), vf_lft_row(&osm, sw1), 7),
		   "ibroute's Switch1 row matches OpenSM's");
		EQ_U(entry(f, &ibr, 0x200001, 1), VF_NO_PORT,
		     "switch absent from the dump: all drop");
	}
	vf_lfts_free(&osm);
	vf_lfts_free(&fts);
	vf_lfts_free(&ibr);
	vf_fabric_destroy(f);
}

static void test_lmc2(void)
{
	struct vf_fabric *f = load_fabric("2sw2path4hca-lmc2.ibnetdiscover");
	struct vf_lfts osm = { 0 }, fts = { 0 };

	if (!f)
		return;
	if (!load_dump("2sw2path4hca-lmc2.opensm-lfts.dump", f, &osm)) {
		EQ_U(osm.max_lid, 23, "LMC 2: 24 LIDs");
		EQ_U(entry(f, &osm, 0x200000, 0x0c), 3, "Switch1 LID 12: port 3");
		EQ_U(entry(f, &osm, 0x200000, 0x0d), 5, "Switch1 LID 13: port 5");
		EQ_U(entry(f, &osm, 0x200001, 0x05), 5, "Switch2 LID 5: port 5");
		EQ_U(entry(f, &osm, 0x200001, 0x02), VF_NO_PORT,
		     "unused LID 2: drop");
		check_write_matches(f, &osm,
				    "2sw2path4hca-lmc2.opensm-lfts.dump");
	}
	if (!load_dump("2sw2path4hca-lmc2.dump_fts", f, &fts))
		OK(same_tables(&osm, &fts), "LMC 2: dump_fts equals OpenSM's");
	vf_lfts_free(&osm);
	vf_lfts_free(&fts);
	vf_fabric_destroy(f);
}

static void test_round_trip(void)
{
	struct vf_fabric *f = load_fabric("2sw2path4hca.net");
	struct vf_lfts t = { 0 }, u = { 0 };
	struct vf_err err = { "" };
	char *buf = NULL;
	size_t len = 0;
	FILE *io;

	if (!f)
		return;
	vf_lfts_init(&t, f->num_switches, f->max_lid);
	for (uint32_t sw = 0; sw < t.num_switches; sw++)
		for (unsigned lid = 1; lid <= t.max_lid; lid++)
			vf_lft_row(&t, sw)[lid] = (lid * 3 + sw) % 9;
	vf_lft_row(&t, 1)[4] = VF_NO_PORT;
	io = open_memstream(&buf, &len);
	EQ_U(vf_lftdump_write(io, f, &t), 0, "write");
	fclose(io);
	OK(strstr(buf, "\n0x0001 003 # Switch portguid 0x0000000000200000: 'Switch1'\n"),
	   "switch entry in OpenSM's format");
	OK(strstr(buf, "\n0x0003 000 # Channel Adapter portguid 0x0000000000100001: 'Hca1'\n"),
	   "CA entry in OpenSM's format");
	OK(strstr(buf, "\n0x0003 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'\n0x0005 "),
	   "dropped LID 4 is left out");
	OK(strstr(buf, "0x0006 001 # Channel Adapter portguid 0x000000000010000a: 'Hca4'\n6 lids dumped\n"),
	   "last entry and trailer");
	io = fmemopen(buf, len, "r");
	if (!OK(vf_lftdump_read(io, "mem", f, &u, &err) == 0, "read back"))
		printf("# %s\n", err.msg);
	fclose(io);
	OK(same_tables(&t, &u), "write -> read round-trip");
	free(buf);
	vf_lfts_free(&t);
	vf_lfts_free(&u);
	vf_fabric_destroy(f);
}

static void expect_err(const struct vf_fabric *f, const char *text,
		       const char *want, const char *label)
{
	struct vf_lfts t = { 0 };
	struct vf_err err = { "" };
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int rc = vf_lftdump_read(in, "bad.dump", f, &t, &err);

	fclose(in);
	OK(rc < 0, label);
	if (!OK(strstr(err.msg, want), label))
		printf("#   message \"%s\", wanted \"%s\"\n", err.msg, want);
	OK(!t.port, "table freed on error");
}

#define HDR1 "Unicast lids [0-6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):\n"

static void test_errors(void)
{
	struct vf_fabric *f = load_fabric("2sw2path4hca.ibnetdiscover");
	struct vf_lfts t = { 0 };
	struct vf_err err = { "" };

	if (!f)
		return;
	expect_err(f, "", "bad.dump: no LFT sections", "empty dump");
	expect_err(f, "Unicast lids [0-6] of switch Lid 1 guid 0x0000000000abcdef ('x'):\n",
		   "bad.dump:1: switch 0x0000000000abcdef is not in the fabric",
		   "unknown switch");
	expect_err(f, "Unicast lids [0-6] of switch Lid 1 guid 0x0000000000100000 ('x'):\n",
		   "bad.dump:1: switch 0x0000000000100000 is not in",
		   "a CA is not a switch");
	expect_err(f, "Unicast lids of switch nothing\n", "bad.dump:1:",
		   "header without GUID");
	expect_err(f, "0x0001 000 # x\n", "bad.dump:1: LFT entry outside",
		   "entry before any header");
	expect_err(f, HDR1 "0x0001 000\n0x0007 001\n",
		   "bad.dump:3: switch \"S-0000000000200000\": LID 7 is not in the fabric",
		   "LID unknown to the fabric");
	expect_err(f, HDR1 "0x0002 009\n",
		   "bad.dump:2: switch \"S-0000000000200000\" LID 2: port 9 out of range (switch has 8 ports)",
		   "port out of range");
	expect_err(f, HDR1 "0xzz 001\n", "bad.dump:2: switch \"S-0000000000200000\": bad LID",
		   "bad LID");
	expect_err(f, HDR1 "0x0002 x1\n", "bad.dump:2: switch \"S-0000000000200000\" LID 2: bad port",
		   "bad port");
	expect_err(f, HDR1 "6 lids dumped\n" HDR1,
		   "bad.dump:3: switch 0x0000000000200000 (\"S-0000000000200000\"): second LFT section",
		   "switch twice");
	expect_err(f, HDR1 "garbage\n", "bad.dump:2: unrecognised line",
		   "unknown line");
	/* OpenSM's LMC 2 dump against the LMC 0 fabric: LIDs differ */
	OK(vf_lftdump_load(fixture("2sw2path4hca-lmc2.opensm-lfts.dump"), f,
			   &t, &err) < 0, "dump of another LID assignment");
	OK(strstr(err.msg, "2sw2path4hca-lmc2.opensm-lfts.dump:3: switch \"S-0000000000200000\" LID 4: dump says port 0x0000000000100001, fabric has port 0x0000000000100004"),
	   "mismatched destination GUID named");
	OK(!t.port, "table freed on error");
	OK(vf_lftdump_load("/nonexistent", f, &t, &err) == -ENOENT,
	   "missing file: -ENOENT");
	OK(strstr(err.msg, "/nonexistent: No such file"), "missing file named");
	vf_fabric_destroy(f);
}

int main(void)
{
	test_lmc0();
	test_lmc2();
	test_round_trip();
	test_errors();
	return tap_done();
}
