class Rect {
public:
	Rect(double w, double h) : w_(w), h_(h) {}
	double area() const { return w_ * h_; }

private:
	double w_, h_;
};

double total()
{
	Rect r(2, 3);
	return r.area() + undeclared;
}
