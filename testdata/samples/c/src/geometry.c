#include "geometry.h"

static double square(double x)
{
	return x * x;
}

double area(const struct shape *s)
{
	if (s->kind == SHAPE_CIRCLE) {
		return 3.14159 * square(s->width / 2);
	}
	return s->width * s->height;
}

double total_area(const struct shape *shapes, int count)
{
	double sum = 0;
	for (int i = 0; i < count; i++) {
		sum += area(&shapes[i]);
	}
	return sum;
}
