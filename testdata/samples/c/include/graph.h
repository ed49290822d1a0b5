#ifndef GRAPH_H
#define GRAPH_H

int visit(int node, int depth);

#endif
