"""The Streamlit pages' code: state, drafts, and one module per page or panel."""
