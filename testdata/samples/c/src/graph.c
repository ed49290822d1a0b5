#include "graph.h"

static int expand(int node, int depth);

/* visit -> expand -> visit: a cycle for the call hierarchy. */
int visit(int node, int depth)
{
	if (depth <= 0) {
		return node;
	}
	return expand(node, depth);
}

static int expand(int node, int depth)
{
	return visit(node * 2, depth - 1) + visit(node * 2 + 1, depth - 1);
}
