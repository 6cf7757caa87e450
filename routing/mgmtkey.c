// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* Management key with lease (routing/mgmtkey.h). */
#include "mgmtkey.h"

/* Compare in time independent of where the keys differ: a requester
 * timing answers learns nothing of the key byte by byte. */
static bool same_key(uint64_t a, uint64_t b)
{
	uint64_t d = a ^ b;

	d |= d >> 32;
	d |= d >> 16;
	d |= d >> 8;
	return (d & 0xff) == 0;
}

bool vf_mkey_check(struct vf_mkey *k, uint64_t carried, bool from_sm,
		   uint64_t now_ms)
{
	if (!k->key)
		return true;
	if (same_key(k->key, carried)) {
		if (from_sm)
			k->lease_end_ms = 0;
		return true;
	}
	k->refused++;
	if (from_sm && k->lease_s && !k->lease_end_ms)
		k->lease_end_ms = now_ms + (uint64_t)k->lease_s * 1000;
	return false;
}

bool vf_mkey_expire(struct vf_mkey *k, uint64_t now_ms)
{
	if (!k->key || !k->lease_end_ms || now_ms < k->lease_end_ms)
		return false;
	k->key = 0;
	k->lease_end_ms = 0;
	return true;
}

void vf_mkey_set(struct vf_mkey *k, uint64_t key, uint16_t lease_s)
{
	k->key = key;
	k->lease_s = lease_s;
	k->lease_end_ms = 0;
}

uint16_t vf_mkey_lease_left_s(const struct vf_mkey *k, uint64_t now_ms)
{
	uint64_t left;

	if (!k->key || !k->lease_end_ms || now_ms >= k->lease_end_ms)
		return 0;
	left = (k->lease_end_ms - now_ms + 999) / 1000;
	return (uint16_t)(left > 0xffff ? 0xffff : left);
}
