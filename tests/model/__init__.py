"""The project's own scripted model server: the real agent CLIs (tests/e2e/test_agent_cli*.py)
talk to it on 127.0.0.1 instead of a provider, and a JSON script says what "the model" answers.

- script.py: which scripted step answers a request (rotations, steps, errors);
- anthropic.py, responses.py, gemini.py: the three wire dialects the CLIs speak (Anthropic
  Messages, OpenAI Responses, Google Gemini), each read into one Ask and written back;
- server.py: the HTTP server, its routes, the trap for every other host, the record of requests.
"""
