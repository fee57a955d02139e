public enum WIP {}
