def greet():
    return "hi"


greet()
