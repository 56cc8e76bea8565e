/* A pretend kernel build tree for the preprocessor tests: its release and .config. */
#define UTS_RELEASE "5.10.0-7-test"
