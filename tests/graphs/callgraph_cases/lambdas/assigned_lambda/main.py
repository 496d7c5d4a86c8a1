def base():
    return 10


plus_one = lambda: base() + 1
plus_one()
