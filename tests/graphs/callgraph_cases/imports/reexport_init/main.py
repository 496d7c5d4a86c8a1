from shapes import area, square_area
import shapes

area(1)
square_area(2)
shapes.area(3)
