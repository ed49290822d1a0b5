static double square(double x)
{
	return x * x;
}

double circle_area(double r)
{
	return 3.14159 * square(r) + missing;
}
