#ifndef REPORT_H
#define REPORT_H
struct stats;
int report(const char *labels[], int n, struct stats *out);
int widest(const char *labels[], int n);
int find(const char *labels[], int n, const char *want);
int checksum(const char *s);
int scaled_total(const int *v, int n, int factor);
char *first_word(const char *s, int *out);
#endif
