// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric-sa raw: any SA request, its payload given in hex, and the
 * answer's payload printed in hex.  For the attributes the other commands
 * do not speak (ServiceRecord, InformInfo, ...) and for malformed
 * requests: the tests build the bytes, the SA's status is what they
 * check.
 */
#include <stdio.h>
#include <string.h>

#include "tools/sa/cli.h"

int cmd_raw(struct vf_sa_port *p, const struct sa_opts *o)
{
	uint8_t mad[VF_MAD_SIZE];
	struct vf_sa_hdr h;
	struct vf_sa_reply r;
	unsigned count;
	size_t end;
	int rc;

	sa_request_hdr(o, &h, vf_sa_new_tid(p), VF_METHOD_GET, o->attr_id,
		       0);
	vf_sa_request(mad, &h);
	memcpy(mad + VF_SA_HDR_SIZE, o->data, o->data_len);
	rc = sa_ask(p, mad, &h, &r, &count);
	if (rc != EXIT_ANSWERED)
		return rc;
	end = r.len;
	while (end > VF_SA_HDR_SIZE && !r.mad[end - 1])
		end--;
	printf("data=");
	for (size_t i = VF_SA_HDR_SIZE; i < end; i++)
		printf("%02x", r.mad[i]);
	printf("\n");
	return EXIT_ANSWERED;
}
