import Shoal
print("Shoal demo")
