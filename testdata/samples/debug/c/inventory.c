/* The C debugger's test subject (dap tests): built with cc -g by the test,
 * run under lldb-dap. Tests find lines by their "bp:" markers. */
#include <stdio.h>

struct item {
	const char *name;
	int qty;
};

static int restock(struct item *items, int n, int add)
{
	int total = 0;
	for (int i = 0; i < n; i++) {
		items[i].qty += add; // bp:loop
		total += items[i].qty;
	}
	return total; // bp:return
}

static int twice(int x)
{
	int y = x * 2; // bp:double
	return y;
}

int main(void)
{
	struct item items[] = {{"pen", 3}, {"pad", 7}};
	int total = restock(items, 2, 2); // bp:call
	int doubled = twice(total); // bp:after
	printf("total %d double %d\n", total, doubled);
	fprintf(stderr, "inventory: done\n");
	return 3;
}
