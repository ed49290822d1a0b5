#ifndef GEOMETRY_H
#define GEOMETRY_H

/* A rectangle or a circle; area() tells them apart by kind. */
struct shape {
	int kind; /* SHAPE_RECT or SHAPE_CIRCLE */
	double width;
	double height;
};

enum { SHAPE_RECT = 1, SHAPE_CIRCLE = 2 };

double area(const struct shape *s);
double total_area(const struct shape *shapes, int count);

#endif
