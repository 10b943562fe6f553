"""Steps of the reference task-oriented pipeline (adapters/pipeline.py): the SGD database and the chat-model
API-call and response steps."""
