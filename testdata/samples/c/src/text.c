#include <string.h>

#include "text.h"

int utf8_len(const char *s)
{
	int n = 0;
	for (; *s; s++) {
		if ((*s & 0xC0) != 0x80) {
			n++;
		}
	}
	return n;
}

int greet(const char *name)
{
	const char *greeting = "héllo 世界 🎉 "; int total = utf8_len(greeting) + utf8_len(name);
	return total + (int)strlen(name);
}
