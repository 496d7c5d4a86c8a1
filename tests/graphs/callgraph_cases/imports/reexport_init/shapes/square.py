def area(s):
    return s * s
