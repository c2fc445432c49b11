"""aria"""
