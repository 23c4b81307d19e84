"""The evidence workflow (``statemachine/evidence.asl.json``) executed locally on moto's Amazon States
Language interpreter, its Lambda tasks answered by the real handlers in-process."""
