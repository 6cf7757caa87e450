// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * OpenSM's subnet code for the SA target, from the opensm binary itself.
 * Debian's libopensm.so has only the log and dump helpers: the subnet,
 * node, port, P_Key and multicast functions live in /usr/sbin/opensm
 * (linked -rdynamic for plugins).  glibc will not dlopen() a PIE
 * executable, so a copy whose DF_1_PIE flag is cleared is loaded from
 * memory, and each function the plugin's handlers and fuzz/sa-subnet.c
 * call is defined here as a call into it: the real OpenSM code runs.
 */
#define _GNU_SOURCE
#include <opensm/osm_config.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_multicast.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_pkey.h>
#include <opensm/osm_port.h>
#include <opensm/osm_subnet.h>
#include <opensm/osm_switch.h>

#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz/sa-subnet.h"

static void *opensm;

/* Clear DF_1_PIE in the dynamic section of the ELF image b[0..n). */
static int clear_pie(uint8_t *b, size_t n)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;

	if (n < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) > n)
		return -1;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(b + eh->e_phoff) + i;

		if (ph->p_type != PT_DYNAMIC || ph->p_offset + ph->p_filesz > n)
			continue;
		for (Elf64_Dyn *d = (Elf64_Dyn *)(b + ph->p_offset);
		     (uint8_t *)(d + 1) <= b + ph->p_offset + ph->p_filesz &&
		     d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_FLAGS_1)
				d->d_un.d_val &= ~(Elf64_Xword)DF_1_PIE;
	}
	return 0;
}

bool vf_fuzz_opensm_load(void)
{
	const char *path = getenv("OPENSM");
	FILE *f;
	uint8_t *b;
	long n;
	int fd;
	char fdpath[64];

	if (opensm)
		return true;
	if (!path || !*path || !strcmp(path, "no"))
		path = "/usr/sbin/opensm";
	f = fopen(path, "rb");
	if (!f)
		return false;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) || !(b = malloc((size_t)n)) ||
	    fread(b, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		return false;
	}
	fclose(f);
	fd = memfd_create("opensm-as-library", 0);
	if (fd < 0 || clear_pie(b, (size_t)n) ||
	    write(fd, b, (size_t)n) != n) {
		free(b);
		return false;
	}
	free(b);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	opensm = dlopen(fdpath, RTLD_NOW | RTLD_LOCAL);
	if (!opensm)
		fprintf(stderr, "sa: cannot load %s: %s\n", path, dlerror());
	return opensm != NULL;
}

static void *sym(const char *name)
{
	void *p = opensm ? dlsym(opensm, name) : NULL;

	if (!p) {
		fprintf(stderr, "sa: %s not found in the opensm binary\n",
			name);
		abort();
	}
	return p;
}

/* name(params) calls the binary's name(args). */
#define INTO_OPENSM(ret, name, params, args) \
	ret name params \
	{ \
		static ret (*fn) params; \
		if (!fn) \
			fn = (ret (*) params)sym(#name); \
		return fn args; \
	}

INTO_OPENSM(void, osm_subn_construct, (osm_subn_t *s), (s))
INTO_OPENSM(void, osm_subn_set_default_opt, (osm_subn_opt_t *o), (o))
INTO_OPENSM(osm_node_t *, osm_node_new, (const osm_madw_t *m), (m))
INTO_OPENSM(void, osm_node_init_physp,
	    (osm_node_t *n, uint8_t p, const osm_madw_t *m), (n, p, m))
INTO_OPENSM(void, osm_node_link,
	    (osm_node_t *a, uint8_t pa, osm_node_t *b, uint8_t pb),
	    (a, pa, b, pb))
INTO_OPENSM(osm_switch_t *, osm_switch_new,
	    (osm_node_t *n, const osm_madw_t *m), (n, m))
INTO_OPENSM(osm_port_t *, osm_port_new,
	    (const ib_node_info_t *ni, osm_node_t *n), (ni, n))
INTO_OPENSM(osm_alias_guid_t *, osm_alias_guid_new,
	    (const ib_net64_t g, osm_port_t *p), (g, p))
INTO_OPENSM(osm_node_t *, osm_get_node_by_guid,
	    (osm_subn_t const *s, ib_net64_t g), (s, g))
INTO_OPENSM(ib_api_status_t, osm_pkey_tbl_set,
	    (osm_pkey_tbl_t *t, uint16_t b, ib_pkey_table_t *p,
	     boolean_t both), (t, b, p, both))
INTO_OPENSM(osm_port_t *, osm_get_port_by_mad_addr,
	    (osm_log_t *l, const osm_subn_t *s, osm_mad_addr_t *a), (l, s, a))
INTO_OPENSM(osm_port_t *, osm_get_port_by_alias_guid,
	    (osm_subn_t const *s, ib_net64_t g), (s, g))
INTO_OPENSM(boolean_t, osm_port_share_pkey,
	    (osm_log_t *l, const osm_port_t *a, const osm_port_t *b,
	     boolean_t both), (l, a, b, both))
INTO_OPENSM(ib_net16_t, osm_physp_find_common_pkey,
	    (const struct osm_physp *a, const struct osm_physp *b,
	     boolean_t both), (a, b, both))
INTO_OPENSM(boolean_t, osm_physp_has_pkey,
	    (osm_log_t *l, ib_net16_t k, const struct osm_physp *p), (l, k, p))
INTO_OPENSM(struct osm_port *, osm_get_port_by_lid_ho,
	    (osm_subn_t const *s, uint16_t lid), (s, lid))
INTO_OPENSM(void, osm_port_get_lid_range_ho,
	    (const osm_port_t *p, uint16_t *lo, uint16_t *hi), (p, lo, hi))
INTO_OPENSM(osm_mgrp_t *, osm_get_mgrp_by_mgid,
	    (osm_subn_t *s, ib_gid_t *g), (s, g))
INTO_OPENSM(boolean_t, osm_link_is_healthy, (const osm_physp_t *p), (p))
INTO_OPENSM(osm_mgrp_t *, osm_mgrp_new,
	    (osm_subn_t *s, ib_net16_t mlid, ib_member_rec_t *r), (s, mlid, r))
