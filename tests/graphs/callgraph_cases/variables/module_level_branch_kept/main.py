def plain():
    return 0


def special():
    return 1


FLAG = False
handler = plain
if FLAG:
    handler = special
handler()
