/// The version `headscan --version` prints (until the Reports module owns it).
package let headscanVersion = "0.6.0"
