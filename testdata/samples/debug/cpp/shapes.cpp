// The C++ debugger's test subject (dap tests): built with c++ -g by the
// test, run under lldb-dap. Tests find lines by their "bp:" markers.
#include <iostream>
#include <vector>

class Rect {
public:
	Rect(double w, double h) : w_(w), h_(h) {}
	double area() const
	{
		double a = w_ * h_; // bp:area
		return a;
	}

private:
	double w_, h_;
};

double total(const std::vector<Rect> &shapes)
{
	double sum = 0;
	for (const Rect &r : shapes) {
		sum += r.area();
	}
	return sum;
}

int main()
{
	std::vector<Rect> shapes{Rect(2, 3), Rect(1, 4)};
	std::cout << "total " << total(shapes) << std::endl;
	return 0;
}
