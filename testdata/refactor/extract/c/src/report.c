#include <stdio.h>
#include <string.h>

#include "report.h"

#define BUMP() (count++)

struct stats {
	int lines;
	int bytes;
};

/*
** Totals of the labels: a loop that assigns two locals used after it.
*/
int report(const char *labels[], int n, struct stats *out)
{
	int total = 0;
	int longest = 0;
	struct stats st = {0, 0};
	for (int i = 0; i < n; i++) {
		int len = (int)strlen(labels[i]);
		total += len;
		if (len > longest)
			longest = len;
		st.lines++;
	}
	printf("« %s » : %d octets, le plus long %d\n", "naïve café 🙂", total, longest);
	*out = st;
	return total;
}

/* A value declared in the selection and used after it. */
int widest(const char *labels[], int n)
{
	int best = 0;
	for (int i = 0; i < n; i++) {
		int w = (int)strlen(labels[i]);
		int padded = w + 2;
		if (padded > best)
			best = padded;
	}
	return best;
}

/* Refusals: a return, a break leaving the selection, two values after. */
int find(const char *labels[], int n, const char *want)
{
	int count = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(labels[i], want) == 0)
			return i;
		if (labels[i][0] == '\0')
			break;
		BUMP();
	}
	int a = count * 2;
	int b = count + 1;
	printf("%d %d\n", a, b);
	return -1;
}

/* Assigned before any use: a local of the new function, or its result. */
int checksum(const char *s)
{
	unsigned i;
	int sum;
	sum = 0;
	for (i = 0; s[i] != '\0'; i++)
		sum += (unsigned char)s[i];
	return sum;
}

#define SCALE(x) ((x) * factor)

/* A macro naming a local: factor is passed although no statement names it. */
int scaled_total(const int *v, int n, int factor)
{
	int total = 0;
	for (int k = 0; k < n; k++)
		total += SCALE(v[k]);
	return total;
}

/* GNU style: the type on its own line; &x, a directive and a pointer result. */
char *
first_word (const char *s, int *out)
{
	int x = 0;
	char *q;
	sscanf (s, "%d", &x);
	*out = 100 / (x + 1);
	x++;
#if defined(VERBOSE)
	printf ("%d\n", x);
#endif
	q = strchr (s, ' ');
	char *r = q ? q + 1 : NULL;
	printf ("%d\n", x);
	return r;
}
