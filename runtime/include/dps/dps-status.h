/* SPDX-License-Identifier: MIT */
/*
 * Status codes shared by libdps and the dps tools (dependency-free: the tools' common code
 * includes this, not dps.h). OK is 0, errors are negative and errno-like.
 */
#ifndef DPS_DPS_STATUS_H
#define DPS_DPS_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

enum dps_status {
	DPS_OK = 0,
	DPS_ERROR = -1,	      /* generic failure */
	DPS_ERR_NOENT = -2,   /* file or thread not found */
	DPS_ERR_IO = -5,      /* read/write failure */
	DPS_ERR_AGAIN = -11,  /* a thread could not be created (the play was aborted) */
	DPS_ERR_NOMEM = -12,  /* allocation failure */
	DPS_ERR_INVAL = -22,  /* bad input (file:line:col in the diagnostic) */
	DPS_ERR_RANGE = -34,  /* number out of range */
	DPS_ERR_DEADLK = -35, /* a wait, join or object nothing can end (every live thread
			       * blocked, or a wait whose waker ended without the wake) */
};

/* A short English description of a status ("deadlock: ..."); never NULL, static storage. */
const char *dps_status_string(int status);

#ifdef __cplusplus
}
#endif

#endif /* DPS_DPS_STATUS_H */
