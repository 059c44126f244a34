import EnserverKit

/// The `enserver` executable: the commands live in EnserverKit, where the tests reach them.
@main
enum EnserverMain {
    static func main() async {
        await Enserver.main()
    }
}
