"""memory/service"""
