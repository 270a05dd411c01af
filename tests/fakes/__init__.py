"""Fake agents and programs the tests run, as processes or (scripted_inline) in-process."""
