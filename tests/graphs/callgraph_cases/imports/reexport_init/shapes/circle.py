def area(r):
    return 3 * r * r
