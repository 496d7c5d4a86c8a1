class Greeter:
    def hello(self):
        return "hello"

    def bye(self):
        return "bye"


g = Greeter()
say = g.hello
say()
