#ifndef TEXT_H
#define TEXT_H

int utf8_len(const char *s);
int greet(const char *name);

#endif
