class Greeter:
    def greet(self):
        return "hi"


class LoudGreeter(Greeter):
    def greet(self):
        return Greeter.greet(self) + "!"


g = LoudGreeter()
Greeter.greet(g)
LoudGreeter.greet(g)
