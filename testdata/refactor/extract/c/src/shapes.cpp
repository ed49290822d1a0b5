#include <vector>

// clangd extracts in C++ itself ("Extract to function").
int perimeter(const std::vector<int> &sides)
{
	int total = 0;
	for (int s : sides) {
		total += s;
	}
	return total;
}
