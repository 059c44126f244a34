#if !canImport(Darwin)
    /// The largest `NSInteger`, as Apple's Foundation declares it (swift-corelibs-foundation does not): app code
    /// written for Apple's framework uses it as the "days since onset unknown" key on systems before iOS 14.
    public let NSIntegerMax: Int = .max
#endif
