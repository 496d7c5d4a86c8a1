def north():
    return "N"


def south():
    return "S"


def east():
    return "E"


moves = [north, south]
moves[1]()
