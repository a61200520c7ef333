/* os: files, paths and the clock (see os.h). */
#include "base/os.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

FILE *os_open_read(const char *path, err *e)
{
	struct stat sb;
	FILE *f;
	/* O_NONBLOCK: opening a named pipe with no writer returns at once instead of waiting. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY), flags;
	if (fd < 0) {
		err_set(e, ERR_DATA, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &sb) != 0) {
		err_set(e, ERR_DATA, "%s: cannot open: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode) || S_ISDIR(sb.st_mode)) {
		err_set(e, ERR_DATA, "%s: %s, not a file%s", path,
			S_ISFIFO(sb.st_mode) ? "a named pipe" : S_ISSOCK(sb.st_mode) ? "a socket" : "a folder",
			S_ISDIR(sb.st_mode) ? "" : ": reading it would wait for a writer");
		close(fd);
		return NULL;
	}
	if ((flags = fcntl(fd, F_GETFL)) == -1 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == -1 ||
	    !(f = fdopen(fd, "rb"))) {
		err_set(e, ERR_DATA, "%s: cannot open: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

int os_read_file(const char *path, size_t max, char **text, err *e)
{
	FILE *f = os_open_read(path, e);
	size_t n = 0, cap = 0;
	char *buf = NULL;
	*text = NULL;
	if (!f)
		return ERR_DATA;
	for (;;) {
		size_t got;
		if (n + 1 >= cap) {
			size_t ncap = cap ? 2 * cap : 4096;
			char *nb = ncap > max ? NULL : realloc(buf, ncap);
			if (!nb) {
				free(buf);
				fclose(f);
				return err_set(e, ERR_DATA, "%s: larger than %zu MiB or out of memory", path, max >> 20);
			}
			buf = nb;
			cap = ncap;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return err_set(e, ERR_DATA, "%s: cannot read", path);
	}
	fclose(f);
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		free(buf);
		return err_set(e, ERR_DATA, "%s: holds a NUL byte: not a text file", path);
	}
	*text = buf;
	return 0;
}

int os_write_file(const char *path, const char *text, err *e)
{
	FILE *f = fopen(path, "wb");
	size_t n = strlen(text);
	if (!f)
		return err_set(e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
	if (fwrite(text, 1, n, f) != n || fflush(f) != 0) {
		int saved = errno;
		fclose(f);
		unlink(path);
		return err_set(e, ERR_DATA, "%s: cannot write: %s", path, strerror(saved));
	}
	if (fclose(f) != 0) {
		int saved = errno;
		unlink(path);
		return err_set(e, ERR_DATA, "%s: cannot write: %s", path, strerror(saved));
	}
	return 0;
}

int os_write_file_whole(const char *path, const char *text, err *e)
{
	size_t n = strlen(path) + 8;
	char *tmp = malloc(n);
	int rc;
	if (!tmp)
		return err_set(e, ERR_DATA, "out of memory");
	snprintf(tmp, n, "%s.tmp", path);
	rc = os_write_file(tmp, text, e);
	if (rc == 0 && rename(tmp, path) != 0) {
		rc = err_set(e, ERR_DATA, "%s: cannot write: %s", path, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

const char *os_base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

void os_stem(const char *path, char *out, size_t n)
{
	const char *b = os_base_name(path), *dot = strrchr(b, '.');
	size_t len = dot ? (size_t)(dot - b) : strlen(b);
	snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), b);
}

void os_now_utc(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
