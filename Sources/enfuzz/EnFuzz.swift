import ENFuzzTargets
import Foundation

// The fuzzing driver.
//
//   enfuzz TARGET FILE|DIRECTORY...          replays inputs through a target (a normal build)
//   enfuzz TARGET [CORPUS] [-option=value]   fuzzes a target with libFuzzer (built by Scripts/fuzz.sh with
//                                            -sanitize=fuzzer,address and -D FUZZING)
#if FUZZING
    import CLibFuzzer
#endif

@main
enum EnFuzz {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count > 1, let target = FuzzTarget(rawValue: arguments[1]) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: enfuzz \(names) FILE|DIRECTORY...\n".utf8))
            exit(2)
        }
        #if FUZZING
            fuzz(target, arguments: [arguments[0]] + arguments.dropFirst(2))
        #else
            replay(target, paths: Array(arguments.dropFirst(2)))
        #endif
    }

    #if FUZZING
        /// The target libFuzzer's callback runs: set once, before the driver starts.
        nonisolated(unsafe) static var selected: FuzzTarget = .exportArchive

        /// Hands the process to libFuzzer with the remaining arguments. A broken rule aborts, which libFuzzer records
        /// as a crash and saves with its input.
        static func fuzz(_ target: FuzzTarget, arguments: [String]) -> Never {
            selected = target
            var argc = CInt(arguments.count)
            var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            let status = pointers.withUnsafeMutableBufferPointer { buffer -> CInt in
                var argv = buffer.baseAddress
                return LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in
                    let input = bytes.map { Data(bytes: $0, count: count) } ?? Data()
                    do {
                        try EnFuzz.selected.run(input)
                    } catch {
                        FileHandle.standardError.write(Data("enfuzz: rule broken: \(error)\n".utf8))
                        abort()
                    }
                    return 0
                }
            }
            exit(status)
        }
    #endif

    /// Runs every input through `target`; exits 1 when one broke a rule.
    static func replay(_ target: FuzzTarget, paths: [String]) -> Never {
        var (inputs, broken) = (0, 0)
        for file in paths.flatMap(files(at:)) {
            inputs += 1
            guard let data = FileManager.default.contents(atPath: file) else {
                print("\(file): cannot read")
                exit(2)
            }
            do {
                try target.run(data)
            } catch {
                broken += 1
                print("\(file): \(error)")
            }
        }
        print("\(target.rawValue): \(inputs) inputs, \(broken) broke a rule")
        exit(broken == 0 ? 0 : 1)
    }

    /// The file at `path`, or the regular files directly inside the directory at `path`, sorted.
    static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue
        else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { (path as NSString).appendingPathComponent($0) }
    }
}
