def shout():
    return "HEY"


def whisper():
    return "hey"


def choose(loud):
    if loud:
        return shout
    return whisper


choose(True)()
