import EnverifyKit

/// The `enverify` executable: the commands live in EnverifyKit, where the tests reach them.
@main
enum EnverifyMain {
    static func main() async {
        await Enverify.main()
    }
}
