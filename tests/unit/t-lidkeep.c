// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * LIDs kept by port GUID (routing/lidkeep.h), as OpenSM's guid2lid keeps
 * them: ports keep theirs, a departed port's stay reserved, new ports get
 * the lowest free ones (aligned on CAs), LIDs a file gives win; keeps
 * read back from an LFT dump.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "routing/lftdump.h"
#include "routing/lidkeep.h"
#include "taptest.h"

#define SW_GUID 0x100ull

static uint64_t host_guid(unsigned h)
{
	return 0x1000ull + 0x10 * h;
}

/* One 16-port switch with hosts h[0..n-1] (host h on port h), no LIDs. */
static struct vf_fabric *star(const unsigned *h, unsigned n)
{
	struct vf_fabric *f = vf_fabric_create();
	uint32_t sw = vf_fabric_add_node(f, VF_NODE_SWITCH, SW_GUID, 0, 16,
					 "S1", NULL);

	for (unsigned i = 0; i < n; i++) {
		char name[16];
		uint32_t ca;

		snprintf(name, sizeof(name), "H%u", h[i]);
		ca = vf_fabric_add_node(f, VF_NODE_CA, host_guid(h[i]) - 1, 0,
					1, name, NULL);
		vf_fabric_link(f, vf_fabric_port(f, sw, h[i]),
			       vf_fabric_port(f, ca, 1));
	}
	return f;
}

/* Base LID of host h's port (its GUID), or 0. */
static unsigned lid_of(const struct vf_fabric *f, uint64_t guid)
{
	uint32_t p = vf_fabric_end_port(f, guid);

	return p == VF_NONE ? 0 : f->ports[p].base_lid;
}

static struct vf_fabric *fresh(const unsigned *h, unsigned n, unsigned lmc)
{
	struct vf_fabric *f = star(h, n);

	vf_fabric_assign_lids(f, lmc);
	vf_fabric_finalize(f);
	return f;
}

static void test_keep_and_reserve(void)
{
	static const unsigned all[] = { 1, 2, 3, 4 }, less[] = { 1, 3, 4 },
			      more[] = { 1, 3, 4, 5 };
	struct vf_fabric *a = fresh(all, 4, 0), *b, *c;
	struct vf_lid_keeps k;

	OK(!vf_lid_keeps_from_fabric(a, &k), "keeps of a fabric");
	EQ_U(k.n, 5, "one entry per LID owner: the switch and four hosts");
	b = star(less, 3);
	OK(!vf_fabric_keep_lids(b, 0, &k) && !vf_fabric_finalize(b),
	   "H2 gone: LIDs given by GUID");
	EQ_U(lid_of(b, SW_GUID), lid_of(a, SW_GUID), "the switch keeps its");
	OK(lid_of(b, host_guid(3)) == lid_of(a, host_guid(3)) &&
	   lid_of(b, host_guid(4)) == lid_of(a, host_guid(4)),
	   "H3 and H4 keep theirs (numbered afresh they would shift down)");
	EQ_U(b->max_lid, a->max_lid, "no LID moved");
	vf_lid_keeps_free(&k);

	/* b's picture does not hold H2: its LID is a hole, free again */
	OK(!vf_lid_keeps_from_fabric(b, &k), "keeps of the smaller fabric");
	c = star(more, 4);
	OK(!vf_fabric_keep_lids(c, 0, &k) && !vf_fabric_finalize(c),
	   "H5 new");
	EQ_U(lid_of(c, host_guid(5)), lid_of(a, host_guid(2)),
	     "a new port takes the lowest free LID: the hole H2 left");
	vf_fabric_destroy(c);
	vf_lid_keeps_free(&k);

	/* a's picture still holds H2: its LID stays reserved (guid2lid) */
	OK(!vf_lid_keeps_from_fabric(a, &k), "keeps of the first fabric");
	c = star(more, 4);
	OK(!vf_fabric_keep_lids(c, 0, &k) && !vf_fabric_finalize(c),
	   "H2 gone, H5 new");
	EQ_U(lid_of(c, host_guid(5)), a->max_lid + 1,
	     "the departed port's LID is not given away: H5 gets the next");
	vf_fabric_destroy(c);
	vf_lid_keeps_free(&k);
	vf_fabric_destroy(a);
	vf_fabric_destroy(b);
}

static void test_lmc_alignment(void)
{
	static const unsigned h[] = { 1, 2, 3 };
	struct vf_lid_keep v[] = {
		{ host_guid(1), 8, 4 },		/* fine */
		{ host_guid(2), 5, 4 },		/* not aligned to 4 */
		{ host_guid(3), 12, 2 },	/* too narrow for LMC 2 */
		{ SW_GUID, 3, 1 },
	};
	/* sorted by GUID, as the API wants */
	struct vf_lid_keep sorted[] = { v[3], v[0], v[1], v[2] };
	struct vf_lid_keeps k = { sorted, 4 };
	struct vf_fabric *f = star(h, 3);

	OK(!vf_fabric_keep_lids(f, 2, &k) && !vf_fabric_finalize(f),
	   "LMC 2 with good and bad keeps");
	EQ_U(lid_of(f, SW_GUID), 3, "a switch keeps a single unaligned LID");
	EQ_U(lid_of(f, host_guid(1)), 8, "an aligned 4-LID block is kept");
	EQ_U(lid_of(f, host_guid(2)), 16,
	     "an unaligned one is dropped: the lowest aligned block nothing "
	     "holds or reserves (5-8 and 12-13 stay H2's and H3's)");
	EQ_U(lid_of(f, host_guid(3)), 20,
	     "a block too narrow for the LMC is dropped too");
	EQ_U(f->ports[vf_fabric_end_port(f, host_guid(2))].lmc, 2,
	     "new CA ports get the LMC");
	vf_fabric_destroy(f);
}

static void test_file_lids_win(void)
{
	static const unsigned h[] = { 1, 2 };
	struct vf_lid_keep v[] = {
		{ SW_GUID, 1, 1 },
		{ host_guid(1), 2, 1 },
		{ host_guid(2), 3, 1 },
	};
	struct vf_lid_keeps k = { v, 3 };
	struct vf_fabric *f = star(h, 2);

	/* the file gives H2 LID 2, the LID H1 had */
	f->ports[vf_fabric_end_port(f, host_guid(2))].base_lid = 2;
	OK(!vf_fabric_keep_lids(f, 0, &k) && !vf_fabric_finalize(f),
	   "a LID from the file beside keeps");
	EQ_U(lid_of(f, host_guid(2)), 2, "the file's LID stays");
	EQ_U(lid_of(f, host_guid(1)), 4,
	     "the port whose kept LID the file took gets a free one (3 is "
	     "reserved by H2's old entry)");
	EQ_U(lid_of(f, SW_GUID), 1, "the switch keeps LID 1");
	vf_fabric_destroy(f);
}

static void test_new_switch(void)
{
	struct vf_lid_keep v[] = { { host_guid(1), 1, 1 } };
	struct vf_lid_keeps k = { v, 1 };
	static const unsigned h[] = { 1 };
	struct vf_fabric *f = star(h, 1);

	OK(!vf_fabric_keep_lids(f, 1, &k) && !vf_fabric_finalize(f),
	   "LMC 1, only the host known");
	EQ_U(lid_of(f, SW_GUID), 2, "a new switch takes one free LID");
	EQ_U(lid_of(f, host_guid(1)), 4,
	     "a kept LID unaligned for LMC 1 is dropped: the lowest free "
	     "aligned block");
	vf_fabric_destroy(f);
}

/* Keeps read back from the dump of a routing equal the fabric's own. */
static void test_from_dump(void)
{
	static const unsigned h[] = { 1, 2, 5 };
	struct vf_fabric *f = fresh(h, 3, 1);
	char path[] = "/tmp/t-lidkeep-XXXXXX";
	struct vf_lid_keeps a, b;
	struct vf_err err = { "" };
	struct vf_lfts t;
	int fd = mkstemp(path);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	bool same;

	vf_lfts_init(&t, f->num_switches, f->max_lid);
	for (unsigned lid = 1; lid <= f->max_lid; lid++)
		vf_lft_row(&t, 0)[lid] = 1;
	OK(out && !vf_lftdump_write(out, f, &t), "write a dump");
	if (out)
		fclose(out);
	OK(!vf_lid_keeps_from_fabric(f, &a), "keeps of the fabric");
	OK(!vf_lid_keeps_from_dump(path, &b, &err), "keeps of its dump");
	same = a.n == b.n;
	for (size_t i = 0; same && i < a.n; i++)
		same = a.v[i].guid == b.v[i].guid &&
		       a.v[i].base_lid == b.v[i].base_lid &&
		       a.v[i].num == b.v[i].num;
	OK(same, "the same GUIDs, base LIDs and LMC ranges");
	vf_lid_keeps_free(&b);
	out = fopen(path, "w");
	fputs("Unicast lids [0-3] of switch Lid 1 guid 0x0000000000000100 ('S1'):\n"
	      "0x0002 001 # Channel Adapter portguid 0x0000000000001010: 'H1'\n"
	      "0x0003 002 # Channel Adapter portguid 0x0000000000001020: 'H2'\n"
	      "Unicast lids [0-3] of switch Lid 4 guid 0x0000000000000200 ('S2'):\n"
	      "0x0002 001 # Channel Adapter portguid 0x0000000000001020: 'H2'\n",
	      out);
	fclose(out);
	OK(vf_lid_keeps_from_dump(path, &b, &err) == -EINVAL &&
	   strstr(err.msg, ":5: LID 2 is port 0x0000000000001020 here and port 0x0000000000001010 before"),
	   "a LID with two port GUIDs is named with its line");
	printf("# %s\n", err.msg);
	OK(vf_lid_keeps_from_dump("/nonexistent", &b, &err) == -ENOENT,
	   "a missing dump");
	unlink(path);
	vf_lid_keeps_free(&a);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
}

int main(void)
{
	test_keep_and_reserve();
	test_lmc_alignment();
	test_file_lids_win();
	test_new_switch();
	test_from_dump();
	return tap_done();
}
