/* SPDX-License-Identifier: MIT */
/*
 * One small logging header for the tools (never the runtime's hot path, which emits
 * tracepoints). Messages: "Cannot open action file: path=\"x\", errno=2".
 * Level from DPS_LOG_LEVEL (E, W, I, D); default W; --verbose sets I.
 */
#ifndef DPS_COMMON_LOG_H
#define DPS_COMMON_LOG_H

enum dps_log_level {
	DPS_LOG_LEVEL_ERROR = 0,
	DPS_LOG_LEVEL_WARN = 1,
	DPS_LOG_LEVEL_INFO = 2,
	DPS_LOG_LEVEL_DEBUG = 3,
};

extern enum dps_log_level dps_log_level;

void dps_log_init_from_env(void);
__attribute__((format(printf, 3, 4))) void dps_log_write(enum dps_log_level level,
							 const char *tag, const char *fmt, ...);

#ifndef DPS_LOG_TAG
#define DPS_LOG_TAG "dps"
#endif

#define DPS_LOGE(...) dps_log_write(DPS_LOG_LEVEL_ERROR, DPS_LOG_TAG, __VA_ARGS__)
#define DPS_LOGW(...)                                                                              \
	do {                                                                                       \
		if (dps_log_level >= DPS_LOG_LEVEL_WARN)                                           \
			dps_log_write(DPS_LOG_LEVEL_WARN, DPS_LOG_TAG, __VA_ARGS__);               \
	} while (0)
#define DPS_LOGI(...)                                                                              \
	do {                                                                                       \
		if (dps_log_level >= DPS_LOG_LEVEL_INFO)                                           \
			dps_log_write(DPS_LOG_LEVEL_INFO, DPS_LOG_TAG, __VA_ARGS__);               \
	} while (0)
#define DPS_LOGD(...)                                                                              \
	do {                                                                                       \
		if (dps_log_level >= DPS_LOG_LEVEL_DEBUG)                                          \
			dps_log_write(DPS_LOG_LEVEL_DEBUG, DPS_LOG_TAG, __VA_ARGS__);              \
	} while (0)

#endif /* DPS_COMMON_LOG_H */
