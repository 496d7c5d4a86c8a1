from shapes.circle import area
from shapes.square import area as square_area
