// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * What every end port's P_Key table holds, as OpenSM read it during the
 * discovery of this sweep (HEAVY_SWEEP_DONE comes before OpenSM's P_Key
 * manager changes anything), handed to partition/ as a plain structure:
 * the P_Keys a previous master gave can be recovered by an SM that does
 * not have them in its cache (partition/recover.h).
 */
#include <opensm/osm_config.h>
#include <opensm/osm_pkey.h>
#include <opensm/osm_port.h>
#include <opensm/osm_subnet.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/plugin.h"

/* Append port slot p's table (empty for a port OpenSM does not know). */
static int add_port(osm_subn_t *subn, const struct vf_fabric *f, uint32_t p,
		    struct vf_held_pkeys *h, uint32_t *cap)
{
	const struct vf_port *pt = &f->ports[p];
	const osm_pkey_tbl_t *tbl;
	osm_port_t *port;
	bool sw = vf_is_switch(&f->nodes[pt->node]);

	h->first[p + 1] = h->first[p];
	if (sw ? pt->num != 0 : pt->num == 0)
		return 0;
	port = osm_get_port_by_guid(subn, cl_hton64(pt->guid));
	if (!port || !port->p_physp)
		return 0;
	tbl = osm_physp_get_pkey_tbl(port->p_physp);
	for (uint16_t b = 0; b < osm_pkey_tbl_get_num_blocks(tbl); b++) {
		const ib_pkey_table_t *blk = osm_pkey_tbl_block_get(tbl, b);

		for (unsigned i = 0; blk && i < IB_NUM_PKEY_ELEMENTS_IN_BLOCK;
		     i++) {
			uint16_t v = cl_ntoh16(blk->pkey_entry[i]);
			uint16_t *grown;

			if (!(v & 0x7fff))
				continue;
			if (h->first[p + 1] == *cap) {
				*cap = *cap ? *cap * 2 : 256;
				grown = realloc(h->keys,
						*cap * sizeof(*grown));
				if (!grown)
					return -ENOMEM;
				h->keys = grown;
			}
			h->keys[h->first[p + 1]++] = v;
		}
	}
	return 0;
}

int vf_held_from_subnet(osm_subn_t *subn, const struct vf_fabric *f,
			struct vf_held_pkeys *h)
{
	uint32_t cap = 0;

	memset(h, 0, sizeof(*h));
	h->first = calloc(f->num_ports + 1, sizeof(*h->first));
	if (!h->first)
		return -ENOMEM;
	h->num_ports = f->num_ports;
	for (uint32_t p = 0; p < f->num_ports; p++)
		if (add_port(subn, f, p, h, &cap)) {
			vf_held_pkeys_free(h);
			return -ENOMEM;
		}
	return 0;
}
