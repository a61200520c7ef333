/* err: errors as values (see err.h). */
#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(err *e, err_code code, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
		e->code = code;
	}
	return (int)code;
}

int err_at(err *e, const char *file, int line, const char *fmt, ...)
{
	if (e) {
		char body[ERR_MSG_MAX];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(body, sizeof body, fmt, ap);
		va_end(ap);
		if (line > 0)
			snprintf(e->msg, sizeof e->msg, "%s:%d: %s", file, line, body);
		else
			snprintf(e->msg, sizeof e->msg, "%s: %s", file, body);
		e->code = ERR_DATA;
	}
	return ERR_DATA;
}

void err_prefix(err *e, const char *prefix)
{
	char tmp[ERR_MSG_MAX];
	if (!e)
		return;
	snprintf(tmp, sizeof tmp, "%s: %s", prefix, e->msg);
	memcpy(e->msg, tmp, sizeof tmp);
}
