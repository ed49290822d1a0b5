import unittest

from shop.orders import EmptyOrderError, Line, Order, process, process_batch


class ProcessTest(unittest.TestCase):
    def test_total(self) -> None:
        order = Order("t-1", "Ada", [Line("pen", 2, 150)])
        total = process(order)
        assert total.amount == 300
        assert total.items == 2

    def test_empty(self) -> None:
        with self.assertRaises(EmptyOrderError):
            process(Order("t-2", "Bob"))

    def test_batch(self) -> None:
        assert process_batch([Order("t-3", "Cy", [Line("pad", 1, 400)])]) == 400


if __name__ == "__main__":
    unittest.main()
