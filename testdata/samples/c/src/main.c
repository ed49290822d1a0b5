#include <stdio.h>

#include "geometry.h"
#include "graph.h"
#include "text.h"

int main(void)
{
	struct shape shapes[] = {
		{ SHAPE_RECT, 2, 3 },
		{ SHAPE_CIRCLE, 2, 0 },
	};
	printf("%.2f\n", total_area(shapes, 2));
	printf("%.2f\n", area(&shapes[0]));
	printf("%d\n", visit(1, 3));
	printf("%d\n", greet("wörld"));
	return 0;
}
