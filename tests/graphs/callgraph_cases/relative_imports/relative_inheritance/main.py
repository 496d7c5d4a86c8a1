from zoo.dog import Dog

d = Dog("rex")
d.bark()
