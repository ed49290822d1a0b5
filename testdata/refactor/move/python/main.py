import shop.geometry
from shop.calc import total
from shop.report import circle, line

print(total(1, 2), shop.geometry.area(3), line(2), circle(shop.geometry.Circle(1)))
